
C
xPlaceholder*
dtype0*$
shape:ÿÿÿÿÿÿÿÿÿ
/
ySqueezex*
squeeze_dims
*
T0"ª