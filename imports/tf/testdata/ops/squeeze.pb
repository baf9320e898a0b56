
C
xPlaceholder*
dtype0*$
shape:ÿÿÿÿÿÿÿÿÿ
/
ySqueezex*
T0*
squeeze_dims
"ª