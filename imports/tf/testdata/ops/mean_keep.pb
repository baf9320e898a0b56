
?
xPlaceholder*
dtype0* 
shape:ÿÿÿÿÿÿÿÿÿ
A
y/reduction_indicesConst*
dtype0*
valueB:
G
yMeanxy/reduction_indices*

Tidx0*
T0*
	keep_dims("ª