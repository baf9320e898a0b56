
?
xPlaceholder*
dtype0* 
shape:ÿÿÿÿÿÿÿÿÿ
A
y/reduction_indicesConst*
valueB:*
dtype0
G
yMeanxy/reduction_indices*
	keep_dims(*

Tidx0*
T0"ª